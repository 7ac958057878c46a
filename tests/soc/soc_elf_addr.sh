# soc_elf_addr.sh: sourced by test_soc.sh and test_soc_cli.sh: addr ELF PATTERN prints the address
# (0x%08x) of the first instruction of main whose disassembly matches PATTERN, or fails.
objdump=${OBJDUMP:-riscv64-unknown-elf-objdump}

addr() {
  local a
  a=$("$objdump" -d "$1" | awk -v pat="$2" '/<main>:/ { m = 1; next } m && /^$/ { exit }
    m && $0 ~ pat { sub(":", "", $1); print $1; exit }')
  [ -n "$a" ] || { echo "test-soc: FAIL: no /$2/ in main of $1" >&2; exit 1; }
  printf '0x%08x' "0x$a"
}

# mk/docs.mk: the commands shown in README.md, run and compared with what it shows.
#
#   make test-readme      run every `$ ` command of README.md's code blocks in a temporary
#                         directory (build/bin/tessera there is the CLI just built, on the
#                         N = 8 model) and fail if its output differs from the lines the
#                         README shows under it (tests/cli/test_readme.py; about 5 s warm)
#   make readme           the same runs, then rewrite those output lines in README.md with
#                         what the CLI printed: after a change to the chip, the firmware or
#                         the CLI's wording, run it and review the diff
#
# The only differences allowed are wall-clock seconds at the end of a line and `...`
# between the keys of a JSON object (tests/cli/test_readme.py says exactly how).
# Both targets build what they need: the CLI and the N = 8 model (the README's commands
# give no --dim).

README_DOC    := README.md
README_LIBDIR := $(BUILD)/lib
README_TEST    = $(PYTHON) tests/cli/test_readme.py --doc $(README_DOC) --tessera $(SW_BIN) \
                 --lib-dir $(README_LIBDIR)

.PHONY: test-readme readme readme-deps
readme-deps: $(SW_BIN)
	@$(MAKE) --no-print-directory sim DIM=8
	@$(PYTHON) -c 'import numpy' 2>/dev/null || { echo "test-readme: numpy not found: pip install numpy (or apt-get install python3-numpy)"; exit 1; }

test-readme: readme-deps ## run every command README.md shows and compare its output with the lines shown (N = 8 model)
	@$(README_TEST)

readme: readme-deps ## rewrite the command outputs shown in README.md with what the CLI prints now (then review the diff)
	@$(README_TEST) --update

# mk/unit.mk: cmocka unit tests. Every tests/unit/test_<name>.c becomes $(BUILD)/tests/unit/test_<name>.
#
# Each test links its own object, the archive $(UNIT_LIB) of UNIT_LIB_SRCS
# (quant, golden model, npy I/O; the linker takes only the objects a test
# needs, so a test may replace one of those modules with its own definitions
# as long as it uses nothing else from that module's object file), and
# the extra sources it declares, in one line, in any mk/*.mk file:
#
#   UNIT_SRCS_test_driver := sw/driver/tsr_driver.c sw/hal/tsr_hal_mock.c
#   UNIT_LDLIBS_test_driver := -ldl            (optional extra libraries)
#
# .c entries are compiled here with the unit flags; any other entry (.o, .a)
# is taken as a prerequisite built by its owner's rules and linked as is.
# The declarations are read after all makefiles are parsed (secondary
# expansion), so include order does not matter.
#
#   make test-unit                    run every suite, stop at the first failure
#   make test-unit-quant              run one suite (tests/unit/test_quant.c)
#   make test-unit SAN='-fsanitize=address,undefined -fno-omit-frame-pointer'
#   TSR_SEED=<n> make test-unit       replay the random cases of a seeded suite

UNIT_DIR       := $(BUILD)/tests/unit
UNIT_OBJ_DIR   := $(UNIT_DIR)/obj
UNIT_LIB_SRCS  := sw/driver/tsr_quant.c sw/golden/tsr_golden.c sw/lib/tsr_npy.c sw/golden/tsr_sfu_golden.c sw/lib/tsr_sfu_prep.c \
                  sw/golden/tsr_golden_params.c
UNIT_LIB       := $(UNIT_DIR)/libtsr_unit.a
UNIT_TESTS     := $(patsubst tests/unit/%.c,%,$(sort $(wildcard tests/unit/test_*.c)))
UNIT_BINS      := $(addprefix $(UNIT_DIR)/,$(UNIT_TESTS))
UNIT_CFLAGS     = $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS)
UNIT_LDLIBS    := -lcmocka -lm
# Under SAN, any undefined behaviour fails the run instead of only printing a line.
UNIT_RUN_ENV   := UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:$$UBSAN_OPTIONS"
# tsr_quant.c and the SFU golden model are also linked into the RV32IM
# firmware: check they stay freestanding (together they call nothing else).
UNIT_RV_PREFIX ?= riscv64-unknown-elf-
UNIT_RV_FLAGS  := -march=rv32im -mabi=ilp32 -ffreestanding -nostdlib -Os
UNIT_RV_SRCS   := sw/driver/tsr_quant.c sw/golden/tsr_sfu_golden.c
UNIT_RV_DIR    := $(UNIT_DIR)/rv32
UNIT_RV_OBJS   := $(patsubst sw/%.c,$(UNIT_RV_DIR)/%.o,$(UNIT_RV_SRCS))

# Object of a source file under $(UNIT_OBJ_DIR); non-.c entries pass through.
unit_objs = $(patsubst %.c,$(UNIT_OBJ_DIR)/%.o,$(1))

# Rebuild everything when the compile flags change (e.g. SAN on or off).
UNIT_FLAGS_FILE := $(UNIT_DIR)/flags.txt
$(UNIT_FLAGS_FILE): unit-flags-force
	@mkdir -p $(@D)
	@echo '$(UNIT_CFLAGS)' | cmp -s - $@ || echo '$(UNIT_CFLAGS)' > $@

.PHONY: unit-flags-force
unit-flags-force:

# One line naming the package when cmocka is missing.
UNIT_CMOCKA_OK := $(UNIT_DIR)/cmocka.ok
$(UNIT_CMOCKA_OK):
	@mkdir -p $(@D)
	@printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\n' \
	  | $(CC) -E -x c - -o /dev/null 2>/dev/null \
	  || { echo "test-unit: cmocka headers not found: install libcmocka-dev (apt-get install libcmocka-dev)"; exit 1; }
	@touch $@

$(UNIT_OBJ_DIR)/%.o: %.c $(UNIT_FLAGS_FILE) | $(UNIT_CMOCKA_OK)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# Reached only when the .c file is missing: say which one instead of make's
# "No rule to make target <test binary>".
$(UNIT_OBJ_DIR)/%.o:
	@echo "test-unit: cannot build $@: $*.c does not exist (check UNIT_SRCS_* in mk/*.mk)"; exit 1

$(UNIT_LIB): $(call unit_objs,$(UNIT_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Objects and binaries reached only through pattern rules are kept.
.PRECIOUS: $(UNIT_OBJ_DIR)/%.o $(UNIT_DIR)/test_%

# Secondary expansion (global once enabled; harmless for rules without $$ in
# their prerequisites) lets UNIT_SRCS_test_* be defined in any mk file.
.SECONDEXPANSION:
$(UNIT_DIR)/test_%: $(UNIT_OBJ_DIR)/tests/unit/test_%.o $$(call unit_objs,$$(UNIT_SRCS_test_$$*)) $(UNIT_LIB)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(filter %.o %.a %.so,$^) $(UNIT_LDLIBS_test_$*) $(UNIT_LDLIBS)

.PHONY: unit-freestanding
unit-freestanding: $(UNIT_RV_DIR)/freestanding.o ## check sw/driver/tsr_quant.c and sw/golden/tsr_sfu_golden.c build for RV32IM freestanding, calling nothing
	@undef=$$($(UNIT_RV_PREFIX)nm -u $<); \
	  if [ -n "$$undef" ]; then echo "unit-freestanding: $(UNIT_RV_SRCS) need external symbols:" $$undef; exit 1; fi
	@for o in $(UNIT_RV_OBJS); do \
	  $(UNIT_RV_PREFIX)size $$o | tail -n 1 | awk -v f="$$(basename $$o .o).c" '{print "unit-freestanding: " f " OK, " $$1 " bytes of RV32IM code (-Os)"}'; \
	done

# The partial link of the objects must leave no undefined symbol.
$(UNIT_RV_DIR)/freestanding.o: $(UNIT_RV_OBJS)
	$(UNIT_RV_PREFIX)gcc $(UNIT_RV_FLAGS) -Wl,-r -o $@ $^

$(UNIT_RV_DIR)/%.o: sw/%.c sw/driver/tsr_quant.h sw/golden/tsr_sfu.h
	@command -v $(UNIT_RV_PREFIX)gcc >/dev/null || { echo "unit-freestanding: $(UNIT_RV_PREFIX)gcc not found: install gcc-riscv64-unknown-elf"; exit 1; }
	@mkdir -p $(@D)
	$(UNIT_RV_PREFIX)gcc $(UNIT_RV_FLAGS) $(CSTD) $(CWARN) -Isw/include -Isw/driver -Isw/golden -c $< -o $@

.PHONY: test-unit
test-unit: $(UNIT_BINS) unit-freestanding ## run the C unit tests (one suite: make test-unit-<name>, e.g. test-unit-quant)
	@for t in $(UNIT_BINS); do \
	  echo "== $$t"; \
	  $(UNIT_RUN_ENV) $$t || { echo "test-unit: FAILED: $$t"; exit 1; }; \
	done; \
	echo "test-unit: all $(words $(UNIT_BINS)) suites passed"

test-unit-%: $(UNIT_DIR)/test_%
	$(UNIT_RUN_ENV) $<

-include $(shell find $(UNIT_OBJ_DIR) -name '*.d' 2>/dev/null)

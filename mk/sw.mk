# mk/sw.mk: host software (HAL backends, driver, CLI), firmware size check, unit-test sources.
UNIT_SRCS_test_driver := sw/tsr_driver.c sw/tsr_hal.c
UNIT_SRCS_test_tiler := fw/tsr_gemm.c sw/tsr_driver.c sw/tsr_hal.c
UNIT_SRCS_test_hal_devmem := sw/tsr_hal_devmem.c sw/tsr_hal_baremetal.c sw/tsr_hal.c

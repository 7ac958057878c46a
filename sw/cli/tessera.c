/* tessera.c: the `tessera` program: run GEMMs and special functions on the simulated (or real) accelerator. */
#include "cli.h"

int main(int argc, char **argv) { return tessera_cli_main(argc, argv); }

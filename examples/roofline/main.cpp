// roofline: tells what is holding a GPU inference workload back.
//
// Exit codes: 0 success; 2 bad usage or bad input (a one-line error naming the file, the place
// and the field); 1 an internal error (a bug: please report it). The program is
// `roofline::cli::run_program` (program.cpp), compiled with the subcommands.

#include "program.hpp"

int main(int argc, char** argv) { return roofline::cli::run_program(argc, argv); }

#pragma once
// What nearly every example and benchmark includes, precompiled once for all of them
// (programs/CMakeLists.txt): pgas, MPI, the command line and the standard headers they use most.
// Not the algorithms: clang 14 crashes instantiating their range views from a precompiled header.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <string>
#include <vector>

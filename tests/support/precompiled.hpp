#pragma once
// What nearly every test unit includes, precompiled once for all test binaries
// (tests/CMakeLists.txt): pgas, GoogleTest, and the standard headers tests use most. Not the
// algorithms: clang 14 crashes instantiating their range views from a precompiled header.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

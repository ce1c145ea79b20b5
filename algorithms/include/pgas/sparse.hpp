#pragma once
// Sparse matrices and the kernels on them (target pgas::algorithms): pgas::sparse_matrix and
// pgas::entry, pgas::multiply, pgas::random_permutation, pgas::erdos_renyi.

#include <pgas/sparse/erdos_renyi.hpp>
#include <pgas/sparse/multiply.hpp>
#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#pragma once
// Sparse matrices and the kernels on them (target pgas::algorithms): pgas::sparse_matrix and
// pgas::entry; builders pgas::random_permutation, pgas::erdos_renyi, pgas::rmat; files
// pgas::matrix_market::read and write; kernels pgas::multiply, pgas::transpose, pgas::permute,
// pgas::toposort, pgas::triangle_count and pgas::bfs.

#include <pgas/sparse/bfs.hpp>
#include <pgas/sparse/erdos_renyi.hpp>
#include <pgas/sparse/matrix_market.hpp>
#include <pgas/sparse/multiply.hpp>
#include <pgas/sparse/permute.hpp>
#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/rmat.hpp>
#include <pgas/sparse/sparse_matrix.hpp>
#include <pgas/sparse/toposort.hpp>
#include <pgas/sparse/transpose.hpp>
#include <pgas/sparse/triangle_count.hpp>

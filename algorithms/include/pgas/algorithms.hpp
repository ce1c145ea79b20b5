#pragma once
// pgas::algorithms: owner-computes algorithms and aligned views over distributed ranges.

#include <pgas/algorithms/for_each.hpp>
#include <pgas/algorithms/histogram.hpp>
#include <pgas/algorithms/reduce.hpp>
#include <pgas/algorithms/scan.hpp>
#include <pgas/algorithms/search.hpp>
#include <pgas/algorithms/sort.hpp>
#include <pgas/algorithms/stencil.hpp>
#include <pgas/algorithms/transform.hpp>
#include <pgas/algorithms/transpose.hpp>
#include <pgas/pgas.hpp>
#include <pgas/views/enumerate.hpp>
#include <pgas/views/local.hpp>
#include <pgas/views/rows.hpp>
#include <pgas/views/take_drop.hpp>
#include <pgas/views/transform.hpp>
#include <pgas/views/zip.hpp>

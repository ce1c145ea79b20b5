#pragma once
// Everything a pgas program needs: the environment, containers, references and sync points.

#include <pgas/aggregator.hpp>
#include <pgas/array.hpp>
#include <pgas/array_view.hpp>
#include <pgas/coarray.hpp>
#include <pgas/collectives.hpp>
#include <pgas/distribution.hpp>
#include <pgas/event.hpp>
#include <pgas/fence_phase.hpp>
#include <pgas/future.hpp>
#include <pgas/global_iterator.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/lock.hpp>
#include <pgas/matrix.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/segment.hpp>
#include <pgas/sync.hpp>
#include <pgas/tile_view.hpp>
#include <pgas/transfers.hpp>
#include <pgas/unordered_map.hpp>
#include <pgas/vector.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/team.hpp>

#pragma once
/// \file
/// \brief The sequential reference backend: plain loops, the oracle every test compares with.

#include <parprim/backends/seq/by_key.hpp>
#include <parprim/backends/seq/reduce.hpp>
#include <parprim/backends/seq/scan.hpp>
#include <parprim/backends/seq/segmented_reduce.hpp>
#include <parprim/backends/seq/segmented_scan.hpp>

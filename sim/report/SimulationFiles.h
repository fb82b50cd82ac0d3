// The files a simulation writes besides its table: a Chrome trace of the first simulated
// steps (Perfetto and chrome://tracing open it: one process per task, lanes for the step's
// phases, the calls and what the ps serves, and counters for the ps's and shared links' load),
// and one CSV per task (a worker's steps; a ps's or host's load over time).
#pragma once

#include "clab/core/Status.h"
#include "run/SimulationResult.h"

#include <string>

namespace clab::sim {

std::string SimulationChromeTrace(const SimulationResult& result);
// Writes `path` (through a temporary file and a rename).
Status WriteChromeTrace(const SimulationResult& result, const std::string& path);

// Into `dir` (made if missing): summary.csv (one row per worker) and, per ps or shared part,
// "<owner or name>.csv" with one row per time bin of its links' and CPU's utilisation.
// `prefix` goes before each file name ("w64-ps4-") so that several configurations share a
// folder.
Status WriteTaskCsvs(const SimulationResult& result, const std::string& dir, const std::string& prefix);

}  // namespace clab::sim

// What limits a simulated configuration, found from where its time and load went, and said
// in plain words with what to do about it:
//
//   "ps 0's NIC (out) is 97% busy and carries 92% of the step's bytes: add a ps or
//    partition hidden1/weights (32 KiB)"
//
// The fields let the studio say the same in the reader's language.
#pragma once

#include "model/StepModel.h"
#include "run/SimulationResult.h"

#include <string>

namespace clab::sim {

struct Bottleneck {
  enum class Kind { kPsNic, kPsCpu, kWorkerNic, kSharedLink, kSharedCpu, kSlowestWorker, kCompute, kLatency };
  Kind kind = Kind::kLatency;
  std::string resource;    // the resource's name in the result, or ""
  std::string owner;       // "ps 0", the slowest worker, the sharing tasks
  std::string direction;   // "out" or "in" for a NIC
  double utilisation = 0;  // of the resource, 0..1
  double share = 0;        // of the step's bytes through it, or of the step's time
  std::string tensor;      // the biggest tensor crossing it
  int64_t tensor_bytes = 0;
  int workers = 0;
  int calls = 0;
  std::string text;  // the sentence, in English
};

Bottleneck FindBottleneck(const SimulationResult& result, const StepModel& model);

// "32 KiB", "1.5 MiB", "512 B".
std::string FormatBytes(double bytes);

}  // namespace clab::sim

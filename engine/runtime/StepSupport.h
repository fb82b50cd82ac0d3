// What both kinds of executor step share (the plain one, and the one that runs while loops in
// execution frames): reading a node's inputs, checking its outputs, collecting fetches,
// naming the node in errors and recording timeline stats.
#pragma once

#include "clab/runtime/OpKernel.h"
#include "runtime/ExecutorPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::step_support {

// Small, stable numbers for the timeline's lanes.
uint32_t CurrentThreadNumber();

// Kernel errors name their node the way TensorFlow 1.13+ does, once.
Status WithNodeName(const Status& status, const std::string& node);

// Moves a node's inputs out of its slots (`slots` and `dead` point at the node's first
// slot); a dead input stays empty, a reference is read (or handed on to a ref input).
Status GatherInputs(const ExecutorNode& item, EdgeValue* slots, const char* dead, std::vector<EdgeValue>* inputs);

// Replaces fed outputs by their feeds and checks that each needed live output is there
// with its declared type.
Status OverrideFedAndCheck(const ExecutorNode& item, const std::vector<Tensor>& feeds, std::vector<EdgeValue>& outputs,
                           const std::vector<char>& out_dead);

// Copies fetched outputs into `fetches` (reading references); a dead fetch is an error.
Status CollectFetches(const ExecutorNode& item, const std::vector<EdgeValue>& outputs,
                      const std::vector<char>& out_dead, std::vector<Tensor>& fetches);

// Runs a synchronous kernel (timing it when it is expensive); a thrown exception fails the
// node. Returns the kernel's status and leaves its outputs in `outputs`.
Status RunSyncKernel(const ExecutorPlan& plan, int id, const StepInfo& info, std::vector<EdgeValue> inputs,
                     std::vector<EdgeValue>* outputs);

struct NodeTiming {
  int64_t start_micros = 0;
  int64_t op_start_micros = 0;
};
void AddNodeStats(tensorflow::DeviceStepStats& stats, const ExecutorNode& item, const NodeTiming& timing,
                  int64_t op_end_micros);

}  // namespace clab::step_support

// What one step runs, as the client named it: the tensors it feeds ("x", "x:0"), the
// tensors it fetches and the nodes it runs as targets ("train", "^train"). A session
// compiles each signature once (clab/compile/CompileStep.h) and keeps the result in its
// PlanCache under Key(), so the steady state of a training loop does no graph work.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clab {

struct StepSignature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;

  // The plan cache's key: each list sorted, so the same names in another order find the
  // same plan (its routes go by name, not by position).
  std::string Key() const;
  // The same key from names that live elsewhere (a request), without copying them first.
  static std::string Key(std::vector<std::string_view> feeds, std::vector<std::string_view> fetches,
                         std::vector<std::string_view> targets);
};

}  // namespace clab

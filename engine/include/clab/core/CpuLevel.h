// The instruction set ClusterLab was built for (CMake's CLAB_CPU_LEVEL, e.g. x86-64-v3) and
// whether this processor has it. Code built for AVX2 dies with SIGILL on a processor
// without it, somewhere deep in a kernel; instead, the engine library checks when it is
// loaded, before any such code runs, and a program on an older processor stops at once with
// a message that names the missing features and how to build for it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace clab {

class CpuLevel {
 public:
  // "x86-64-v3", or "" when built for the compiler's baseline.
  static std::string Built();
  // The features the build assumes that this processor lacks ("avx2", "fma", ...); empty
  // when it has them all, or when the level is one the check does not know ("native").
  static std::vector<std::string> Missing();
  // What a program prints before it stops; "" when nothing is missing.
  static std::string Problem();
  // The same for a given level and processor (`has` answers for a feature name).
  static std::vector<std::string> MissingFor(const std::string& level, const std::function<bool(const char*)>& has);
  static std::string ProblemFor(const std::string& level, const std::function<bool(const char*)>& has);
};

}  // namespace clab

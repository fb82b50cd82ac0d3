// Built for the baseline instruction set (see engine/CMakeLists.txt): this file's code runs
// before anything built for CLAB_CPU_LEVEL.
#include "clab/core/CpuLevel.h"

#include <cstdio>
#include <cstring>

#include <unistd.h>

#ifndef CLAB_CPU_LEVEL
#define CLAB_CPU_LEVEL ""
#endif

namespace clab {
namespace {

// The features that each x86-64 level adds to the ones below it, as the processor reports
// them (GCC's and clang's __builtin_cpu_supports names).
bool Has(const char* feature) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (std::strcmp(feature, "sse3") == 0) return __builtin_cpu_supports("sse3");
  if (std::strcmp(feature, "ssse3") == 0) return __builtin_cpu_supports("ssse3");
  if (std::strcmp(feature, "sse4.1") == 0) return __builtin_cpu_supports("sse4.1");
  if (std::strcmp(feature, "sse4.2") == 0) return __builtin_cpu_supports("sse4.2");
  if (std::strcmp(feature, "popcnt") == 0) return __builtin_cpu_supports("popcnt");
  if (std::strcmp(feature, "avx") == 0) return __builtin_cpu_supports("avx");
  if (std::strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
  if (std::strcmp(feature, "bmi") == 0) return __builtin_cpu_supports("bmi");
  if (std::strcmp(feature, "bmi2") == 0) return __builtin_cpu_supports("bmi2");
  if (std::strcmp(feature, "fma") == 0) return __builtin_cpu_supports("fma");
  if (std::strcmp(feature, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(feature, "avx512bw") == 0) return __builtin_cpu_supports("avx512bw");
  if (std::strcmp(feature, "avx512cd") == 0) return __builtin_cpu_supports("avx512cd");
  if (std::strcmp(feature, "avx512dq") == 0) return __builtin_cpu_supports("avx512dq");
  if (std::strcmp(feature, "avx512vl") == 0) return __builtin_cpu_supports("avx512vl");
#endif
  (void)feature;
  return true;
}

std::vector<const char*> Required(const std::string& level) {
  const std::vector<const char*> v2 = {"sse3", "ssse3", "sse4.1", "sse4.2", "popcnt"};
  std::vector<const char*> v3 = v2;
  for (const char* f : {"avx", "avx2", "bmi", "bmi2", "fma"}) v3.push_back(f);
  std::vector<const char*> v4 = v3;
  for (const char* f : {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}) v4.push_back(f);
  if (level == "x86-64-v2") return v2;
  if (level == "x86-64-v3") return v3;
  if (level == "x86-64-v4") return v4;
  return {};
}

// Runs when the engine library is loaded, ahead of the library's other initialisers.
__attribute__((constructor(101))) void StopOnMissingFeatures() {
  const std::string problem = CpuLevel::Problem();
  if (problem.empty()) return;
  std::fputs(problem.c_str(), stderr);
  std::fflush(stderr);
  ::_exit(1);
}

}  // namespace

std::string CpuLevel::Built() { return CLAB_CPU_LEVEL; }

std::vector<std::string> CpuLevel::Missing() { return MissingFor(Built(), Has); }

std::string CpuLevel::Problem() { return ProblemFor(Built(), Has); }

std::vector<std::string> CpuLevel::MissingFor(const std::string& level, const std::function<bool(const char*)>& has) {
  std::vector<std::string> missing;
  for (const char* feature : Required(level))
    if (!has(feature)) missing.emplace_back(feature);
  return missing;
}

std::string CpuLevel::ProblemFor(const std::string& level, const std::function<bool(const char*)>& has) {
  const std::vector<std::string> missing = MissingFor(level, has);
  if (missing.empty()) return "";
  std::string names;
  for (const std::string& feature : missing) names += (names.empty() ? "" : ", ") + feature;
  return "ClusterLab was built for " + level + " processors, and this processor lacks " + names +
         ". Build ClusterLab on this machine (scripts/build) or configure it with -DCLAB_CPU_LEVEL=x86-64 "
         "for any 64-bit x86 processor.\n";
}

}  // namespace clab

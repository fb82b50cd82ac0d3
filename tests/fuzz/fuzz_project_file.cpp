// A ClusterLab project (.clab, JSON) as `clab launch` and the launchers read it: the
// cluster, program, run and launch settings and the project's own graph.
#include "FuzzFile.h"
#include "launch/project/ProjectFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("project.clab");
  auto project = clab::launch::ProjectFile::Read(file.Write(data, size));
  if (!project.ok()) return 0;
  (void)project->Stem();
  (void)project->Tasks();
  return 0;
}

// The example projects the simulator's suites play (examples/projects), found from
// CLAB_SOURCE_DIR under CTest or from the source folder the suite was built from.
#pragma once

#include "StatusText.h"
#include "project/SimProject.h"

#include <QtGlobal>

#include <cstdlib>
#include <string>

namespace clab::sim::testing {

inline std::string ExampleProjectPath(const char* name) {
  const char* source = std::getenv("CLAB_SOURCE_DIR");
  return std::string(source ? source : CLAB_SOURCE_DIR_FALLBACK) + "/examples/projects/" + name;
}

inline SimProject ExampleProject(const char* name) {
  StatusOr<SimProject> project = SimProject::Load(ExampleProjectPath(name));
  if (!project.ok()) qFatal("%s", clab::testing::StatusText(project.status()));
  return *project;
}

}  // namespace clab::sim::testing

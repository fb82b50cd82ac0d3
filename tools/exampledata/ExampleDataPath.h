// Where the data sets of the example programs are (resources/data): the example classifiers
// read them, and a launch that copies ClusterLab to a host copies them along.
#pragma once

#include <string>

namespace clab::tools {

// resources/data/<name> in the source tree (CLAB_SOURCE_DIR when set, else the tree this was
// built from when it is still there) or next to the installed program
// (../share/clusterlab/data).
std::string ExampleDataPath(const std::string& name);

}  // namespace clab::tools

#include "clab/compile/CompiledStep.h"

namespace clab {

int CompiledStep::PartitionIndex(const std::string& name) const {
  for (size_t p = 0; p < partitions.size(); ++p)
    if (partitions[p].name == name) return static_cast<int>(p);
  return -1;
}

}  // namespace clab

// What the reduction families share: the axes a reduction_indices input names, and the
// shape function of every reduction (input, reduction_indices; keep_dims).
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/ShapeContext.h"

#include <vector>

namespace clab::math_internal {

// Marks the axes named by `axes` (negative ones count from the end); rejects axes out of
// range and repeated axes.
Status NormalizeAxes(const Tensor& axes, int rank, std::vector<bool>* reduced);
Status ReductionShape(ShapeContext& ctx);

}  // namespace clab::math_internal

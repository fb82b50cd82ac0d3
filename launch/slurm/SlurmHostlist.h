// SLURM's compact host lists, as in SLURM_JOB_NODELIST and SLURM_STEP_NODELIST, expanded
// in order and without removing duplicates, as TensorFlow's SlurmClusterResolver
// (expand_hostlist) and `scontrol show hostnames` do:
//
//   "n[1-3,5]"                  -> n1 n2 n3 n5
//   "n[1-2],m5,o[3-4,6,7-9]"    -> n1 n2 m5 o3 o4 o6 o7 o8 o9
//   "n[0001-0003],m5,o[009-011]" -> n0001 n0002 n0003 m5 o009 o010 o011   (zeros kept)
//   "gpu[1-2]-ib"               -> gpu1-ib gpu2-ib                         (a suffix, as SLURM allows)
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <vector>

namespace clab::launch {

// INVALID_ARGUMENT naming the list and what is wrong in it (an unclosed '[', an empty
// name, a range that runs backwards, a number that is not one).
StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& hostlist);

}  // namespace clab::launch

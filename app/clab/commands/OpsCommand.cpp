#include "commands/OpsCommand.h"

#include "clab/graph/OpRegistry.h"
#include "clab/runtime/Device.h"
#include "clab/train/Gradients.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/TextTable.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>
#include <ostream>
#include <vector>

namespace clab::cli {

std::string OpsCommand::description() const {
  return "Lists every registered op under its group, with the device types that have a kernel\n"
         "for it (GPU kernels appear when the CUDA plugin loads), whether it has a gradient\n"
         "function and a shape function, and a one-line summary. Ops\n"
         "whose names start with \"_\" are inserted by the runtime (e.g. _Send/_Recv).";
}

void OpsCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("group", "NAME", "show only this group (e.g. math)", &group_);
}

Status OpsCommand::Run(std::ostream& out) {
  // Plugins add kernels to registered ops; without loading them GPU kernels would be hidden.
  LoadDevicePlugins();

  std::map<std::string, std::vector<const OpDef*>> by_group;
  for (const OpDef* op : OpRegistry::Global().ListOps())
    by_group[op->group.empty() ? "other" : op->group].push_back(op);

  if (!group_.empty() && by_group.count(group_) == 0) {
    std::vector<std::string> groups;
    for (const auto& [group, ops] : by_group) groups.push_back(group);
    return UsageError(absl::StrCat("no op group '", group_, "'; the groups are: ", absl::StrJoin(groups, ", ")));
  }

  size_t shown = 0;
  for (const auto& [group, ops] : by_group) {
    if (!group_.empty() && group != group_) continue;
    out << group << " (" << ops.size() << (ops.size() == 1 ? " op" : " ops") << ")\n";
    TextTable table({"  OP", "KERNELS", "GRADIENT", "SHAPE FN", "SUMMARY"});
    for (const OpDef* op : ops) {
      std::vector<std::string> devices;
      for (const auto& [device_type, factory] : op->kernels) devices.push_back(device_type);
      table.AddRow({"  " + op->name, devices.empty() ? "-" : absl::StrJoin(devices, ","),
                    HasGradient(op->name) ? "yes" : "-", op->shape_fn ? "yes" : "-", op->summary});
    }
    table.Print(out);
    out << "\n";
    shown += ops.size();
  }
  out << shown << (shown == 1 ? " op" : " ops");
  if (group_.empty()) out << " in " << by_group.size() << (by_group.size() == 1 ? " group" : " groups");
  out << "\n";
  return OkStatus();
}

}  // namespace clab::cli

// The commands `clab` ships with, in the order `clab --help` lists them.
#pragma once

namespace clab::cli {

class CommandRegistry;

void RegisterBuiltinCommands(CommandRegistry& registry);

}  // namespace clab::cli

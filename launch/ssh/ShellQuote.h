// Quoting for the POSIX shell that runs a command on a remote host: ssh hands its command
// to the remote user's login shell as one string, so every word ClusterLab sends (paths,
// cluster specs, JSON) is wrapped in single quotes, with each ' written as '\''.
#pragma once

#include <string>
#include <vector>

namespace clab::launch {

std::string ShellQuote(const std::string& word);
// The words quoted and joined with spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace clab::launch

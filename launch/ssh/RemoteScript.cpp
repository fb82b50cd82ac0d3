#include "launch/ssh/RemoteScript.h"

#include "launch/ssh/ShellQuote.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

namespace clab::launch {
namespace {

// Sets B to the program's path: a path is taken as it is, a bare name is looked up in PATH.
std::string FindBinary(const std::string& binary) {
  return absl::StrCat("B=", ShellQuote(binary), "\n",
                      "case \"$B\" in\n"
                      "  */*) [ -x \"$B\" ] || { echo \"clab-launch: no-binary $B\"; exit 4; } ;;\n"
                      "  *) P=$(command -v \"$B\") || { echo \"clab-launch: no-binary $B\"; exit 4; }; B=$P ;;\n"
                      "esac\n");
}

std::string LibraryPath(const std::string& library_dir) {
  if (library_dir.empty()) return "";
  return absl::StrCat("LD_LIBRARY_PATH=", ShellQuote(library_dir), "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n",
                      "export LD_LIBRARY_PATH\n");
}

// Waits (up to 10 s, in steps of 50 ms) until the file $1 is not empty.
constexpr const char* kWaitForFile =
    "wait_for() { n=0; while [ ! -s \"$1\" ]; do n=$((n+1)); [ $n -gt 200 ] && return 1; sleep 0.05; done; }\n";

}  // namespace

std::string RemoteScript::AsCommand(const std::string& script) { return "sh -c " + ShellQuote(script); }

std::string RemoteScript::Setup(const std::string& data_dir) {
  return absl::StrCat(
      "D=", ShellQuote(data_dir), "\n",
      "mkdir -p \"$D/logs\" \"$D/clusterlab/bin\" \"$D/clusterlab/lib\" \"$D/clusterlab/share/clusterlab/data\" ||"
      " { echo \"clab-launch: no-data-dir $D\"; exit 3; }\n",
      "echo \"clab-launch: data-dir $(cd \"$D\" && pwd)\"\n");
}

std::string RemoteScript::Check(const std::string& binary, const std::string& library_dir) {
  return absl::StrCat(
      FindBinary(binary), LibraryPath(library_dir),
      "V=$(\"$B\" version 2>&1) || { echo \"clab-launch: broken-binary $B: $(printf '%s' \"$V\" | head -n 3 | tr '\\n' ' ')\"; exit 5; }\n",
      "echo \"clab-launch: ready $B $(printf '%s' \"$V\" | head -n 1)\"\n", "echo \"clab-launch: host $(hostname)\"\n");
}

std::string RemoteScript::Start(const std::string& binary, const std::string& library_dir,
                                const std::vector<std::string>& args, const std::string& log_path) {
  return absl::StrCat(FindBinary(binary), LibraryPath(library_dir), kWaitForFile, "L=", ShellQuote(log_path), "\n",
                      ": > \"$L\" || { echo \"clab-launch: no-log $L\"; exit 3; }\n", "rm -f \"$L.pid\" \"$L.exit\"\n",
                      // The task in a session of its own, so that the end of this connection does not end it;
                      // the shell around it records its pid and, when it ends, its exit status.
                      "setsid sh -c '\"$@\" & echo $! > \"$0.pid\"; wait $!; echo $? > \"$0.exit\"' \"$L\" \"$B\" ",
                      ShellJoin(args), " </dev/null >>\"$L\" 2>&1 &\n",
                      "wait_for \"$L.pid\" || { echo \"clab-launch: no-pid\"; exit 6; }\n", "P=$(cat \"$L.pid\")\n",
                      "echo \"clab-launch: pid $P\"\n", "tail -n +1 -s 0.2 -F --pid=\"$P\" \"$L\" 2>/dev/null\n",
                      "wait_for \"$L.exit\" || { echo \"clab-launch: exit-unknown\"; exit 0; }\n",
                      "echo \"clab-launch: exit $(cat \"$L.exit\")\"\n");
}

std::string RemoteScript::PrivateDirs(const std::string& top, const std::vector<std::string>& dirs) {
  std::vector<std::string> quoted;
  for (const std::string& dir : dirs) quoted.push_back(ShellQuote(dir));
  return absl::StrCat(
      // Everything made here is the user's alone from the start.
      "umask 077\n", "private() {\n",
      "  [ -L \"$1\" ] && { echo \"clab-launch: no-private-dir $1 (a symbolic link)\"; exit 3; }\n",
      "  mkdir -p \"$1\" && [ -d \"$1\" ] && [ -O \"$1\" ] && chmod 700 \"$1\" ||"
      " { echo \"clab-launch: no-private-dir $1\"; exit 3; }\n",
      "}\n", "private ", ShellQuote(top), "\n", "for T in ", absl::StrJoin(quoted, " "), "; do\n",
      "  P=$(dirname \"$T\"); [ \"$P\" != ", ShellQuote(top), " ] && private \"$P\"\n", "  private \"$T\"\n",
      "  rm -rf \"$T\"/* \"$T\"/.[!.]* 2>/dev/null\n", "done\n", "echo \"clab-launch: private-dirs-ready\"\n");
}

std::string RemoteScript::LockFiles(const std::vector<std::string>& dirs) {
  std::vector<std::string> quoted;
  for (const std::string& dir : dirs) quoted.push_back(ShellQuote(dir));
  return absl::StrCat("for T in ", absl::StrJoin(quoted, " "), "; do\n", "  for F in \"$T\"/*; do\n",
                      "    [ -f \"$F\" ] && [ ! -L \"$F\" ] && chmod 600 \"$F\" &&"
                      " [ \"$(stat -c %a \"$F\")\" = 600 ] || { echo \"clab-launch: not-locked $F\"; exit 3; }\n",
                      "  done\n", "done\n", "echo \"clab-launch: locked\"\n");
}

std::string RemoteScript::Stop(const std::vector<long>& pids, const std::string& binary, int grace_seconds) {
  std::vector<std::string> words;
  for (long pid : pids) words.push_back(std::to_string(pid));
  const std::string list = absl::StrJoin(words, " ");
  return absl::StrCat(
      // A pid counts only while it still runs this program (pids are reused).
      "ours() { [ \"$(tr '\\0' '\\n' < /proc/$1/cmdline 2>/dev/null | head -n 1)\" = ", ShellQuote(binary), " ]; }\n",
      "left=\"\"\n", "for P in ", list, "; do\n",
      "  if ours $P; then kill -TERM $P 2>/dev/null; left=\"$left $P\"; else echo \"clab-launch: gone $P\"; fi\n",
      "done\n", "n=0\n", "while [ -n \"$left\" ]; do\n", "  still=\"\"\n",
      "  for P in $left; do if ours $P; then still=\"$still $P\"; else echo \"clab-launch: stopped $P\"; fi; done\n",
      "  left=$still\n", "  [ -z \"$left\" ] && break\n", "  n=$((n+1))\n", "  if [ $n -gt ", grace_seconds * 10,
      " ]; then\n", "    for P in $left; do kill -KILL $P 2>/dev/null; echo \"clab-launch: killed $P\"; done\n",
      "    break\n", "  fi\n", "  sleep 0.1\n", "done\n");
}

}  // namespace clab::launch

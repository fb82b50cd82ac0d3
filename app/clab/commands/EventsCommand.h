// `clab events DIR|FILE`: the scalars of TensorBoard event files as a table (step, time,
// tag, value), for people without the studio or TensorBoard. Every record's framing and
// CRCs are checked; a damaged record is reported with its file and offset.
#pragma once

#include "cli/Command.h"

#include <string>
#include <vector>

namespace clab::cli {

class EventsCommand : public Command {
 public:
  std::string name() const override { return "events"; }
  std::string summary() const override { return "Print the scalar summaries of event files as a table"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string path_;
  std::vector<std::string> tags_;
};

}  // namespace clab::cli

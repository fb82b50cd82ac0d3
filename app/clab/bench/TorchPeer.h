// The PyTorch peer of `clab bench train`: benchmarks/torch_ps.py (a parameter server over
// PyTorch RPC with the same model, data, shards, batch, learning rate and step count, push
// and pull in one RPC, a ps and N workers as processes of their own over loopback), run
// with a Python that has torch (Debian's python3-torch). Find() says why it cannot run
// when it cannot; the benchmark prints that instead of the peer's figures.
#pragma once

#include "bench/TrainRun.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace clab::cli {

class TorchPeer {
 public:
  // `python`: an interpreter to use, or empty to try python3 on PATH, then /usr/bin/python3.
  // `script`: torch_ps.py. FAILED_PRECONDITION with a line for the table when torch is not
  // installed or the script is missing.
  static StatusOr<std::unique_ptr<TorchPeer>> Find(const std::string& python, const std::string& script);

  // Trains once; every process it started has ended when it returns.
  StatusOr<TrainRun> Run(int workers, int64_t steps, int hidden, const std::string& data_path) const;

  const std::string& python() const { return python_; }
  const std::string& torch_version() const { return torch_version_; }

 private:
  TorchPeer(std::string python, std::string script, std::string torch_version);

  std::string python_;
  std::string script_;
  std::string torch_version_;
};

}  // namespace clab::cli

// clab: the ClusterLab command line. See cli/Application.h.
#include "cli/Application.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  int code = 0;
  {
    clab::cli::Application app(std::cout, std::cerr);
    code = app.Run(std::vector<std::string>(argv + 1, argv + argc));
  }
  // Everything the command says is written out, then it ends without running the exit
  // handlers: a thread of gRPC's completion queues can still be winding down when they run,
  // and under load it aborted a finished task there ("assertion failed: prior > 0") after its
  // work was done, as it did seed_distributed.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

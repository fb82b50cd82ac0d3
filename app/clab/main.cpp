// clab: the ClusterLab command line. See cli/Application.h.
#include "cli/Application.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  clab::cli::Application app(std::cout, std::cerr);
  return app.Run(std::vector<std::string>(argv + 1, argv + argc));
}

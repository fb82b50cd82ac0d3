#include "clab/compile/StepSignature.h"

#include <algorithm>

namespace clab {

std::string StepSignature::Key() const {
  return Key({feeds.begin(), feeds.end()}, {fetches.begin(), fetches.end()}, {targets.begin(), targets.end()});
}

std::string StepSignature::Key(std::vector<std::string_view> feeds, std::vector<std::string_view> fetches,
                               std::vector<std::string_view> targets) {
  std::string key;
  for (auto* list : {&feeds, &fetches, &targets}) {
    std::sort(list->begin(), list->end());
    for (std::string_view name : *list) {
      key.append(name.data(), name.size());
      key += '\n';
    }
    key += '\x01';
  }
  return key;
}

}  // namespace clab

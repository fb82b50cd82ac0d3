// A limit on how deeply the arrays and objects of a JSON text nest, checked on the text
// before a JSON parser sees it: the parsers and the readers that walk a parsed document
// recurse once per level, so a few thousand brackets from a hostile file or flag would
// otherwise overflow the stack.
#pragma once

#include "clab/core/Status.h"

#include <string_view>

namespace clab {

// Deeper than any file or message ClusterLab reads legitimately.
inline constexpr int kMaxJsonNesting = 100;

// INVALID_ARGUMENT when `text` nests deeper than `max_depth`, naming `what` (the file, the
// flag), the depth reached and the line and column where it went past the limit. Brackets
// inside strings do not count; other syntax is left to the parser.
Status CheckJsonNesting(std::string_view text, std::string_view what, int max_depth = kMaxJsonNesting);

}  // namespace clab

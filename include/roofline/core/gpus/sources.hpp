#pragma once
// PLACEHOLDER: the citation list [S1]..[S28] is being filled in.
#include <string_view>
#include <vector>
namespace roofline::gpus {
struct citation { std::string_view id; std::string_view text; };
inline const std::vector<citation>& catalog_sources() { static const std::vector<citation> s; return s; }
}  // namespace roofline::gpus

#pragma once
// Helpers shared by the tests: where the real sample files are, and skipping when absent.

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

namespace roofline::test {

/// Path of a file under ../shared/samples (real files by other people; never copied in).
inline std::filesystem::path shared_sample(const std::string& rel) {
    return std::filesystem::path(ROOFLINE_SHARED_SAMPLES) / rel;
}

/// Path of a file under the repository's data/ folder.
inline std::filesystem::path repo_data(const std::string& rel) {
    return std::filesystem::path(ROOFLINE_SOURCE_DIR) / "data" / rel;
}

/// True when the file exists; otherwise prints why the test is skipped.
inline bool have_sample(const std::filesystem::path& p) {
    if (std::filesystem::exists(p)) return true;
    MESSAGE("skipped: sample file absent: " << p.string());
    return false;
}

}  // namespace roofline::test

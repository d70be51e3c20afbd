// Fuzz target: the byte layer under every reader (io/input.hpp, io/csv.hpp): gzip inflation
// (plain, concatenated members, corrupt or truncated streams), line splitting and RFC-4180
// records, with small buffers so that every refill path runs. Plain and chunked reads must give
// the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    std::string whole, chunked, joined;
    const bool whole_ok = fuzz::expect_only_roofline_errors([&] { whole = io::read_all(path); }, path);
    const bool chunked_ok = fuzz::expect_only_roofline_errors([&] {
        io::input_file in(path, 7);
        char buf[13];
        while (const std::size_t n = in.read(buf, sizeof buf)) chunked.append(buf, n);
    }, path);
    fuzz::require(whole_ok == chunked_ok);
    if (whole_ok) fuzz::require(whole == chunked);
    fuzz::expect_only_roofline_errors([&] {
        io::input_file in(path, 16);
        io::line_reader lines(in);
        std::string line;
        std::size_t n = 0;
        while (lines.next(line)) {
            ++n;
            fuzz::require(lines.line_number() == n);
            joined += line;
        }
    }, path);
    fuzz::expect_only_roofline_errors([&] {
        io::input_file in(path, 16);
        io::csv_reader csv(in);
        std::vector<std::string> cells;
        std::string raw;
        while (csv.next(cells, raw)) fuzz::require(!cells.empty());
    }, path);
    return 0;
}

// Inflate speed of a gzip file: zlib streaming into a 64 KiB buffer (what io/input.hpp does, in
// bounded memory) against libdeflate, which has no streaming interface and needs the whole
// compressed file and the whole decompressed output in memory. Decides issue 15's "measure
// libdeflate against zlib and keep what is faster" (README: Trace ingest).
//
//   inflate_compare FILE.gz [REPS]
//
// Prints one line per repetition: bytes, seconds and MB/s for each. Built with
// -DROOFLINE_BUILD_BENCHMARKS=ON where libdeflate-dev is installed.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <libdeflate.h>
#include <zlib.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: inflate_compare FILE.gz [REPS]\n");
        return 2;
    }
    std::ifstream f(argv[1], std::ios::binary);
    const std::vector<unsigned char> in((std::istreambuf_iterator<char>(f)), {});
    if (in.size() < 18 || in[0] != 0x1f || in[1] != 0x8b) {
        std::fprintf(stderr, "%s: not a gzip file\n", argv[1]);
        return 2;
    }
    const int reps = argc > 2 ? std::stoi(argv[2]) : 3;
    // ISIZE, the gzip trailer's uncompressed size mod 2^32 (one member, under 4 GiB).
    const std::size_t n = in.size();
    const std::size_t isize = static_cast<std::size_t>(in[n - 4]) | static_cast<std::size_t>(in[n - 3]) << 8 |
                              static_cast<std::size_t>(in[n - 2]) << 16 | static_cast<std::size_t>(in[n - 1]) << 24;
    using clock = std::chrono::steady_clock;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = clock::now();
        z_stream z{};
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 1;
        z.next_in = const_cast<unsigned char*>(in.data());
        z.avail_in = static_cast<uInt>(in.size());
        std::vector<unsigned char> buf(1 << 16);
        std::size_t zlib_bytes = 0;
        int rc = Z_OK;
        while (rc == Z_OK) {
            z.next_out = buf.data();
            z.avail_out = static_cast<uInt>(buf.size());
            rc = inflate(&z, Z_NO_FLUSH);
            zlib_bytes += buf.size() - z.avail_out;
        }
        inflateEnd(&z);
        const auto t1 = clock::now();
        std::vector<unsigned char> whole(isize);
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        std::size_t got = 0;
        const auto lr = libdeflate_gzip_decompress(d, in.data(), in.size(), whole.data(), whole.size(), &got);
        libdeflate_free_decompressor(d);
        const auto t2 = clock::now();
        if (rc != Z_STREAM_END || lr != LIBDEFLATE_SUCCESS) {
            std::fprintf(stderr, "%s: decompression failed (zlib %d, libdeflate %d)\n", argv[1], rc, static_cast<int>(lr));
            return 1;
        }
        const double a = std::chrono::duration<double>(t1 - t0).count();
        const double b = std::chrono::duration<double>(t2 - t1).count();
        std::printf("zlib (64 KiB stream): %zu B in %.3f s, %.0f MB/s; libdeflate (whole file): %zu B in %.3f s, "
                    "%.0f MB/s, %.2fx, %.0f MB held\n",
                    zlib_bytes, a, static_cast<double>(zlib_bytes) / a / 1e6, got, b, static_cast<double>(got) / b / 1e6,
                    a / b, static_cast<double>(in.size() + whole.size()) / 1e6);
    }
    return 0;
}

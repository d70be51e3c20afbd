#pragma once
// Interval arithmetic on a GPU timeline.
//
// Kernels on different streams overlap; the questions a trace analysis asks are about time, not
// about kernels: how long was the GPU busy at all (the union of its activity), how much of a
// collective ran while no compute kernel did (exposed communication = collectives minus
// compute), and how long the GPU sat idle between kernels (the gaps of the union). All three
// are set operations on half-open intervals [start, end):
//
//   busy      = |U_i [s_i, e_i)|
//   exposed   = |C \ K|      C = union of collective intervals, K = union of compute intervals
//   overlap   = |C n K|      = |C| - exposed
//   idle      = span - busy
//
// An `interval_set` is kept normalised: sorted by start, disjoint, no empty members, so every
// operation is one linear merge.

#include <algorithm>  // std::sort, std::max, std::min
#include <cstddef>    // std::size_t
#include <vector>     // std::vector

namespace roofline {

/// A half-open time interval [start_s, end_s), seconds.
struct time_interval {
    double start_s = 0;
    double end_s = 0;
    double length_s() const { return end_s > start_s ? end_s - start_s : 0.0; }
};

/// A normalised set of intervals: sorted by start, pairwise disjoint and not touching, none
/// empty. Build one with `merge_intervals`.
using interval_set = std::vector<time_interval>;

/// The union of `v` as a normalised set (touching intervals merge; empty ones are dropped).
inline interval_set merge_intervals(std::vector<time_interval> v) {
    std::erase_if(v, [](const time_interval& i) { return !(i.end_s > i.start_s); });
    std::sort(v.begin(), v.end(),
              [](const time_interval& a, const time_interval& b) { return a.start_s < b.start_s; });
    interval_set out;
    for (const auto& i : v) {
        if (!out.empty() && i.start_s <= out.back().end_s)
            out.back().end_s = std::max(out.back().end_s, i.end_s);
        else
            out.push_back(i);
    }
    return out;
}

/// Total length of a normalised set, seconds.
inline double total_length_s(const interval_set& s) {
    double t = 0;
    for (const auto& i : s) t += i.length_s();
    return t;
}

/// a n b for normalised sets (linear merge).
inline interval_set intersect(const interval_set& a, const interval_set& b) {
    interval_set out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const double s = std::max(a[i].start_s, b[j].start_s), e = std::min(a[i].end_s, b[j].end_s);
        if (e > s) out.push_back({s, e});
        if (a[i].end_s < b[j].end_s)
            ++i;
        else
            ++j;
    }
    return out;
}

/// a \ b for normalised sets (linear merge).
inline interval_set subtract(const interval_set& a, const interval_set& b) {
    interval_set out;
    std::size_t j = 0;
    for (const auto& x : a) {
        double s = x.start_s;
        while (j < b.size() && b[j].end_s <= s) ++j;
        std::size_t k = j;
        while (k < b.size() && b[k].start_s < x.end_s) {
            if (b[k].start_s > s) out.push_back({s, b[k].start_s});
            s = std::max(s, b[k].end_s);
            ++k;
        }
        if (x.end_s > s) out.push_back({s, x.end_s});
    }
    return out;
}

/// Length of `s` inside [start_s, end_s), seconds.
inline double length_within_s(const interval_set& s, double start_s, double end_s) {
    double t = 0;
    for (const auto& i : s) {
        if (i.start_s >= end_s) break;
        t += std::max(0.0, std::min(i.end_s, end_s) - std::max(i.start_s, start_s));
    }
    return t;
}

/// The idle gaps between consecutive members of a normalised set, seconds (size() - 1 values).
inline std::vector<double> gaps_s(const interval_set& s) {
    std::vector<double> g;
    for (std::size_t i = 1; i < s.size(); ++i) g.push_back(s[i].start_s - s[i - 1].end_s);
    return g;
}

}  // namespace roofline

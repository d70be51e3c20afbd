#pragma once
// The Pareto front of points that maximise two quantities (throughput per GPU and interactivity,
// in capacity planning): a point is on the front when no other point is at least as good on both
// and better on one.
//
// O(n log n): sort by x descending (ties: y descending) and keep each point whose y beats every
// y seen so far. Of identical points only the first is kept. Points with a coordinate that is not
// a finite positive number are ignored (an unknown or zero throughput is no candidate).

#include <algorithm>  // std::stable_sort, std::sort, std::reverse
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <vector>     // std::vector

namespace roofline {

/// Indices of the Pareto-optimal items of `items` (maximising `x(item)` and `y(item)`), ordered
/// by x ascending (so y descending). `keep(item)` filters candidates (e.g. only configurations that
/// fit and meet the SLOs).
template <class T, class X, class Y, class Keep>
std::vector<std::size_t> pareto_front(const std::vector<T>& items, X x, Y y, Keep keep) {
    struct cand {
        double x, y;
        std::size_t i;
    };
    std::vector<cand> c;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const double xi = x(items[i]), yi = y(items[i]);
        if (keep(items[i]) && std::isfinite(xi) && std::isfinite(yi) && xi > 0 && yi > 0) c.push_back({xi, yi, i});
    }
    std::stable_sort(c.begin(), c.end(), [](const cand& a, const cand& b) {
        if (a.x != b.x) return a.x > b.x;
        return a.y > b.y;
    });
    std::vector<std::size_t> front;
    double best_y = 0.0;
    for (const auto& k : c)
        if (front.empty() || k.y > best_y) {
            front.push_back(k.i);
            best_y = k.y;
        }
    std::reverse(front.begin(), front.end());
    return front;
}

/// `pareto_front` over every item.
template <class T, class X, class Y>
std::vector<std::size_t> pareto_front(const std::vector<T>& items, X x, Y y) {
    return pareto_front(items, x, y, [](const T&) { return true; });
}

/// The same front built one point at a time, for sweeps too large to keep: O(front size) per
/// point. A point enters unless an earlier one is at least as good on both axes; it evicts the
/// points it is at least as good as. The result equals `pareto_front` over the same sequence.
template <class T>
class pareto_accumulator {
public:
    /// Offers `item` at (x, y); ignored unless both are finite and positive.
    void add(double x, double y, const T& item) {
        if (!(std::isfinite(x) && std::isfinite(y) && x > 0 && y > 0)) return;
        for (const auto& e : front_)
            if (e.x >= x && e.y >= y) return;
        std::size_t keep = 0;
        for (std::size_t i = 0; i < front_.size(); ++i)
            if (!(x >= front_[i].x && y >= front_[i].y)) front_[keep++] = front_[i];
        front_.resize(keep);
        front_.push_back({x, y, item});
    }
    /// The front, by x ascending.
    std::vector<T> front() const {
        auto f = front_;
        std::sort(f.begin(), f.end(), [](const entry& a, const entry& b) { return a.x < b.x; });
        std::vector<T> out;
        out.reserve(f.size());
        for (auto& e : f) out.push_back(e.item);
        return out;
    }
    std::size_t size() const { return front_.size(); }

private:
    struct entry {
        double x, y;
        T item;
    };
    std::vector<entry> front_;
};

}  // namespace roofline

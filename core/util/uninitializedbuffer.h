#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace attnscope {

// An allocator whose value-initialisation is default-initialisation: `FloatBuffer buffer(n)` allocates
// n floats without writing them. For large outputs that parallel tasks fill anyway, this skips a serial
// zeroing pass on the calling thread (for 12 heads × 512² probabilities per layer that pass, with its page
// faults, cost ~10% of a BERT-base forward on 2 cores); the pages are then first touched by the tasks.
template <typename T> struct DefaultInitAllocator : std::allocator<T>
{
    template <typename U> struct rebind
    {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <typename U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <typename U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args> void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// Contents are indeterminate after construction or resize: write every element before reading it.
using FloatBuffer = std::vector<float, DefaultInitAllocator<float>>;

} // namespace attnscope

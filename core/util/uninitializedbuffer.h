#pragma once

#include <cstddef>
#include <cstdint>
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
//
// Blocks of kPageAlignedFromBytes or more start on a 4 KiB page: a probability dump is then written past
// the page cache straight from the buffer (O_DIRECT wants block-aligned memory), without copying it into an
// aligned staging buffer first; that copy cost ~5% of a BERT-base CLI run (io/directwriter.h).
template <typename T> struct DefaultInitAllocator : std::allocator<T>
{
    static constexpr std::size_t kPageAlignedFromBytes = std::size_t(64) << 10;
    static constexpr std::size_t kPageBytes = 4096;

    template <typename U> struct rebind
    {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <typename U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    T* allocate(std::size_t n)
    {
        if (n > (std::size_t(-1) - kPageBytes - sizeof(void*)) / sizeof(T)) throw std::bad_array_new_length();
        if (n * sizeof(T) < kPageAlignedFromBytes) return std::allocator<T>::allocate(n);
        // Aligned by hand inside an ordinary block, its start kept just below the aligned address: glibc's
        // memalign asks its heap for size + alignment, so a freed block of the same size never fits the
        // next request, and one P per layer grew the heap layer by layer (+87 MB peak RSS for BERT-base).
        char* raw = static_cast<char*>(::operator new(n * sizeof(T) + kPageBytes + sizeof(void*)));
        const std::uintptr_t aligned =
            (reinterpret_cast<std::uintptr_t>(raw) + sizeof(void*) + kPageBytes - 1) &
            ~std::uintptr_t(kPageBytes - 1);
        reinterpret_cast<char**>(aligned)[-1] = raw;
        return reinterpret_cast<T*>(aligned);
    }
    void deallocate(T* p, std::size_t n) noexcept
    {
        if (n * sizeof(T) < kPageAlignedFromBytes)
            std::allocator<T>::deallocate(p, n);
        else
            ::operator delete(reinterpret_cast<char**>(p)[-1]);
    }
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

#pragma once

namespace attnscope {

// Which head a presenter is showing, stepped from the keyboard: heads run 0..heads-1 within a layer and
// stepping past the last head goes on to the next layer (and from the last layer back to the first),
// so one key walks through every head of the model in order.
class HeadCursor
{
public:
    HeadCursor() = default;
    HeadCursor(int layers, int heads, int layer = 0, int head = 0);

    int layers() const { return m_layers; }
    int heads() const { return m_heads; }
    int layer() const { return m_layer; }
    int head() const { return m_head; }
    bool isValid() const { return m_layers > 0 && m_heads > 0; }

    void set(int layer, int head); // clamped into range
    void stepHead(int delta);      // wraps across layers
    void stepLayer(int delta);     // wraps, keeps the head

private:
    int m_layers = 0, m_heads = 0, m_layer = 0, m_head = 0;
};

} // namespace attnscope

#pragma once

// A token <-> id map shared by the WordPiece and BPE models.

#include <QtGlobal>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnscope::tok {

class Vocabulary
{
public:
    void insert(const std::u32string& token, int id)
    {
        m_ids[token] = id;
        if (id >= int(m_tokens.size())) {
            m_tokens.resize(size_t(id) + 1);
            m_present.resize(size_t(id) + 1, false);
        }
        m_tokens[size_t(id)] = token;
        m_present[size_t(id)] = true;
    }
    std::optional<int> find(const std::u32string& token) const
    {
        const auto it = m_ids.find(token);
        if (it == m_ids.end())
            return std::nullopt;
        return it->second;
    }
    const std::u32string* token(int id) const
    {
        if (id < 0 || id >= int(m_tokens.size()) || !m_present[size_t(id)])
            return nullptr;
        return &m_tokens[size_t(id)];
    }
    int size() const { return int(m_ids.size()); }

private:
    std::unordered_map<std::u32string, int> m_ids;
    std::vector<std::u32string> m_tokens;
    std::vector<bool> m_present;
};

} // namespace attnscope::tok

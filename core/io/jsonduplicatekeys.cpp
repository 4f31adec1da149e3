#include "io/jsonduplicatekeys.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <vector>

namespace attnscope {

namespace {

struct Container
{
    bool isObject = false;
    bool expectKey = false; // in an object: the next string is a key
    QString key;            // the key whose value is being read (for the path)
    QSet<QString> keys;
};

// A JSON string literal (with its quotes) as text; escapes decoded by Qt's own parser.
QString decodeString(const QByteArray& literal)
{
    if (!literal.contains('\\')) return QString::fromUtf8(literal.constData() + 1, literal.size() - 2);
    return QJsonDocument::fromJson('[' + literal + ']').array().at(0).toString();
}

} // namespace

std::optional<QStringList> firstDuplicateJsonKey(const QByteArray& json)
{
    std::vector<Container> stack;
    const qsizetype size = json.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char c = json[i];
        if (c == '{' || c == '[') {
            Container container;
            container.isObject = c == '{';
            container.expectKey = container.isObject;
            stack.push_back(std::move(container));
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) stack.pop_back();
        } else if (c == ',') {
            if (!stack.empty() && stack.back().isObject) stack.back().expectKey = true;
        } else if (c == '"') {
            const qsizetype begin = i;
            for (++i; i < size && json[i] != '"'; ++i)
                if (json[i] == '\\') ++i; // the escaped character cannot end the string
            if (stack.empty() || !stack.back().isObject || !stack.back().expectKey) continue;
            Container& object = stack.back();
            object.key = decodeString(json.mid(begin, i - begin + 1));
            object.expectKey = false;
            if (object.keys.contains(object.key)) {
                QStringList path;
                for (const Container& level : stack)
                    if (level.isObject) path << level.key;
                return path;
            }
            object.keys.insert(object.key);
        }
    }
    return std::nullopt;
}

} // namespace attnscope

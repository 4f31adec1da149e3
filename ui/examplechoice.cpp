#include "examplechoice.h"

#include "explorer/explorersession.h"
#include "firststart.h"
#include "mainwindow.h"

namespace attnscope {

bool openExample(MainWindow& window, const ExampleText& example)
{
    const int current = window.currentEngineIndex();
    const int model = exampleModel(*window.session()->models(), current, example);
    if (model >= 0 && model != current && !window.selectEngine(model)) return false;
    if (example.needsDecoder) openStrongestHeadOnNextResult(window);
    window.setTexts(example.text);
    return true;
}

} // namespace attnscope

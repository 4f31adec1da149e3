#pragma once
// A sibling on the same floor: the check must fail on this include too.
#include "explorer/high.h"

#pragma once

#include <Eigen/Core>

#include <QStringList>
#include <QWidget>

namespace attnscope {

// RoPE as dials: one row per token, one dial per rotated pair; the hand points at the angle
// m·θ^(−2p/d) (mod 2π) by which token m's pair p is turned. Fast pairs spin, slow pairs barely move.
class LessonRopeDialsWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LessonRopeDialsWidget(QWidget* parent = nullptr);
    void setAngles(const Eigen::MatrixXd& angles, const QStringList& tokens); // [tokens × pairs] radians
    void setFontPointSize(double size);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Eigen::MatrixXd m_angles;
    QStringList m_tokens;
    double m_fontPointSize = 10;
};

} // namespace attnscope

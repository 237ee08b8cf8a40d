/*! \brief Shape parsing (MXNet tuple syntax), printing, size and merging. */
#include "symnet/shape.h"

#include <gtest/gtest.h>

namespace symnet {
namespace {

TEST(Shape, ParsesMXNetTupleSyntax) {
  EXPECT_EQ(Shape::FromString("(3, 3)"), (Shape{3, 3}));
  EXPECT_EQ(Shape::FromString("[2,4,5]"), (Shape{2, 4, 5}));
  EXPECT_EQ(Shape::FromString("(7,)"), Shape{7});
  EXPECT_EQ(Shape::FromString("7"), Shape{7});
  EXPECT_EQ(Shape::FromString("()"), Shape::Scalar());
  EXPECT_EQ(Shape::FromString("(2L, 3L)"), (Shape{2, 3}));
  EXPECT_FALSE(Shape::FromString("None").ndim_known());
  EXPECT_EQ(Shape::FromString("(None, 3)")[0], -1);
  EXPECT_THROW(Shape::FromString("(3, x)"), Error);
  EXPECT_THROW(Shape::FromString("(3, 4"), Error);
}

TEST(Shape, PrintsLikePython) {
  EXPECT_EQ((Shape{2, 3}).ToString(), "(2, 3)");
  EXPECT_EQ(Shape{5}.ToString(), "(5,)");
  EXPECT_EQ(Shape::Scalar().ToString(), "()");
  EXPECT_EQ(Shape().ToString(), "None");
  EXPECT_EQ(Shape::Unknown(2).ToString(), "(-1, -1)");
}

TEST(Shape, SizeAndKnown) {
  EXPECT_EQ((Shape{2, 3, 4}).Size(), 24);
  EXPECT_EQ(Shape::Scalar().Size(), 1);
  EXPECT_EQ((Shape{2, 3, 4}).ProdRange(1, 3), 12);
  EXPECT_FALSE(Shape::Unknown(2).is_known());
  EXPECT_THROW(Shape::Unknown(2).Size(), Error);
  EXPECT_EQ((Shape{2, 3, 4}).at(-1), 4);
  EXPECT_THROW((Shape{2, 3}).at(2), Error);
}

TEST(Shape, SizeOverflowIsAnErrorNotAWrapAround) {
  const int64_t big = int64_t{1} << 32;
  // 2 * 2^32 * 2^32 = 2^65 wraps to 0 in int64 arithmetic
  EXPECT_THROW((Shape{2, big, big}).Size(), Error);
  EXPECT_THROW((Shape{2, big, big}).ProdRange(1, 3), Error);
  try {
    (Shape{int64_t{1} << 33, int64_t{1} << 31}).Size();
    FAIL() << "2^64 elements did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(8589934592, 2147483648)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("2^60"), std::string::npos) << e.what();
  }
  // the limit itself is fine, one more is not (the byte count of 8-byte elements must fit too)
  EXPECT_EQ((Shape{int64_t{1} << 30, int64_t{1} << 30}).Size(), Shape::kMaxElements);
  EXPECT_THROW((Shape{(int64_t{1} << 30) + 1, int64_t{1} << 30}).Size(), Error);
  EXPECT_EQ((Shape{big, big, big, 0}).Size(), 0);  // a zero dim makes any product 0, no overflow
  EXPECT_EQ(Shape::MulElements(3, 4, Shape{3, 4}), 12);
  EXPECT_THROW(Shape::MulElements(int64_t{1} << 40, int64_t{1} << 40, Shape{1, 1}), Error);
}

TEST(Shape, AssignMergesKnownDims) {
  Shape a = Shape::Unknown(2);
  EXPECT_TRUE(ShapeAssign(&a, Shape{-1, 5}));
  EXPECT_TRUE(ShapeAssign(&a, Shape{3, -1}));
  EXPECT_EQ(a, (Shape{3, 5}));
  EXPECT_FALSE(ShapeAssign(&a, Shape{3, 6}));
  EXPECT_FALSE(ShapeAssign(&a, Shape{3}));
  Shape u;
  EXPECT_TRUE(ShapeAssign(&u, Shape{1, 2}));
  EXPECT_EQ(u, (Shape{1, 2}));
}

}  // namespace
}  // namespace symnet

package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NewestChangeTest {
  @Test
  void admitsTheSameOrNewerAndCountsWhatIsOlder() {
    NewestChange n = new NewestChange();
    assertThat(n.newest()).isEqualTo(-1);
    assertThat(n.admit(0x100)).isTrue();
    assertThat(n.admit(0x100)).as("a read again of the same change").isTrue();
    assertThat(n.admit(0xff)).as("a server behind").isFalse();
    assertThat(n.admit(0x200)).isTrue();
    assertThat(n.admit(0x150)).isFalse();
    assertThat(n.newest()).isEqualTo(0x200);
    assertThat(n.skipped()).isEqualTo(2);
  }
}

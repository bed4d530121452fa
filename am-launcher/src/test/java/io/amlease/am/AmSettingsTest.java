package io.amlease.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The rules of the AM settings that submit checks before anything is staged. */
class AmSettingsTest {
  private static Configuration base() {
    Configuration c = new Configuration(false);
    c.set(AmSettings.NAME, "app");
    c.set(LeaseConfig.CONNECT, "127.0.0.1:2181");
    c.set(AmSettings.MASTER_COMMAND, "[\"true\"]");
    return c;
  }

  private static void refused(Configuration c, String key, String... fragments) {
    assertThatThrownBy(() -> AmSettings.from(c)).isInstanceOfSatisfying(
        LeaseConfigException.class, e -> {
          assertThat(e.key()).isEqualTo(key);
          assertThat(e.getMessage()).contains(key).contains(fragments);
        });
  }

  @Test
  void aKeytabComesWithItsPrincipalAndServesASaslLease() {
    Configuration c = base();
    c.set(AmSettings.KEYTAB, "am.keytab");
    refused(c, AmSettings.PRINCIPAL, "is required with " + AmSettings.KEYTAB);
    c = base();
    c.set(AmSettings.PRINCIPAL, "am@EXAMPLE.COM");
    refused(c, AmSettings.KEYTAB, "is required with " + AmSettings.PRINCIPAL);
    c.set(AmSettings.KEYTAB, "am.keytab");
    assertThat(AmSettings.from(c).keytab()).isEqualTo("am.keytab");
    c.set(LeaseConfig.SASL_PRINCIPAL, "am");
    AmSettings s = AmSettings.from(c);
    assertThat(s.principal()).isEqualTo("am@EXAMPLE.COM");
    assertThat(AmSettings.from(s.toConfiguration())).usingRecursiveComparison().isEqualTo(s);
  }

  @Test
  void aSaslLeaseNeedsTheAmsKeytab() {
    Configuration c = base();
    c.set(LeaseConfig.SASL_PRINCIPAL, "am");
    refused(c, LeaseConfig.SASL_PRINCIPAL, "needs " + AmSettings.PRINCIPAL + " and "
        + AmSettings.KEYTAB, "JAAS login context 'Client'");
  }

  @Test
  void amJavaOptsMustSurviveTheLaunchScript() {
    for (String bad : new String[] {"-Da=\"b\"", "-Da=`id`", "-Da=\\x", "-Da=1\n-Db=2"}) {
      Configuration c = base();
      c.set(AmSettings.AM_JAVA_OPTS, bad);
      refused(c, AmSettings.AM_JAVA_OPTS, "one line without");
    }
    Configuration c = base();
    c.set(AmSettings.AM_JAVA_OPTS, "-Djava.security.krb5.conf=/etc/krb5.conf -Dx='a b'");
    assertThat(AmSettings.from(c).amJavaOpts()).endsWith("-Dx='a b'");
  }

  @Test
  void metricsPortIsAPortOrNone() {
    Configuration c = base();
    assertThat(AmSettings.from(c).metricsPort()).isEqualTo(-1);
    c.set(AmSettings.METRICS_PORT, "65536");
    refused(c, AmSettings.METRICS_PORT, "at most 65535");
    c.set(AmSettings.METRICS_PORT, "-2");
    refused(c, AmSettings.METRICS_PORT, "at least -1");
    c.set(AmSettings.METRICS_PORT, "0");
    assertThat(AmSettings.from(c).metricsPort()).isZero();
  }
}

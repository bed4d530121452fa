package io.amlease.am.master;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;

/**
 * The delegation tokens a worker container needs on a secure cluster (to localize the shipped
 * files from the staging filesystem, and to read HDFS): the AM's own, as it holds them when the
 * worker starts, without the AM's token for the ResourceManager, which only the AM may use (as
 * YARN's DistributedShell does). On a cluster without security there are none to pass.
 */
final class ContainerTokens {
  private ContainerTokens() {}

  /** The AM's current tokens for a container's launch context; null when there are none. */
  static ByteBuffer ofThisAm() {
    try {
      Credentials own = UserGroupInformation.getCurrentUser().getCredentials();
      Credentials forWorker = new Credentials(own);
      forWorker.getAllTokens().stream()
          .filter(t -> AMRMTokenIdentifier.KIND_NAME.equals(t.getKind()))
          .map(t -> t.getService()).toList()
          .forEach(forWorker::removeToken);
      if (forWorker.numberOfTokens() == 0 && forWorker.numberOfSecretKeys() == 0) {
        return null;
      }
      DataOutputBuffer buf = new DataOutputBuffer();
      forWorker.writeTokenStorageToStream(buf);
      return ByteBuffer.wrap(buf.getData(), 0, buf.getLength());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the AM's delegation tokens", e);
    }
  }
}

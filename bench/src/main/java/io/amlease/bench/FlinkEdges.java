package io.amlease.bench;

import java.util.UUID;
import java.util.function.Consumer;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderelection.LeaderInformationRegister;

/** A Flink election driver's grant and revoke, as a bench holder acts on them; nothing else. */
record FlinkEdges(Consumer<UUID> granted, Runnable revoked)
    implements LeaderElectionDriver.Listener {

  @Override
  public void onGrantLeadership(UUID session) {
    granted.accept(session);
  }

  @Override
  public void onRevokeLeadership() {
    revoked.run();
  }

  @Override
  public void onLeaderInformationChange(String componentId, LeaderInformation info) {}

  @Override
  public void onLeaderInformationChange(LeaderInformationRegister register) {}

  @Override
  public void onError(Throwable t) {}
}

"""Ray RLlib (new API stack): DQN learns Qwirkle's move values through the whole-move mode.

    pip install -e ".[rllib]"
    python examples/rllib_dqn.py --smoke        # about a minute: CI's run
    python examples/rllib_dqn.py                # the reference run (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", action_mode="moves",
look_ahead=16, opponent="greedy")``, sampled in the driver (no env-runner actors: on 2
cores one process samples and learns). The Q-network is ``MovePolicyNet`` inside RLlib's
DQN module (``RowsDQNModule``): one value per row, the rows that hold no move masked (a very low
value), and its epsilon-greedy exploration draws among the legal rows. At every curve point
and at the end the network is exported to the project's checkpoint format: it plays as
``ckpt:PATH`` without Ray.

``--opponent self`` is self-play on the PettingZoo env itself, for 2, 3 or 4 players
(``--players``): every seat plays the one module and every seat's turns train it (RLlib's
multi-agent episodes give each seat its own next observation and the rewards it got in
between). Its curve is against greedy in every other seat.

Ray starts only on loopback: the program re-executes itself in a private network namespace
first (examples/ray_loopback.py) and starts its own local instance with at most 2 CPUs.
"""

from __future__ import annotations

import os
import time

import torch
from tqdm import tqdm

from agents.move_policy.network import MovePolicyConfig, MovePolicyNet
from agents.move_policy.recipe import (
    QRecipe,
    SelfPlayRows,
    q_recipe,
    q_recipe_parser,
    row_values,
)
from qwirkle_env.spec import MASKED_LOGIT

MODULE = {False: "default_policy", True: "shared"}  # the module's id, by self-play
# The longest --n-step RLlib's single-agent EpisodeReplayBuffer samples correctly: it
# counts a sampled return that runs past its episode's end as fewer than one row of the
# batch, so it samples on and on (with a horizon of 100, for ten minutes and more).
ONE_SEAT_N_STEP = 3
# The MovePolicyConfig fields the module's config carries (the rest keep their defaults)
NET_OPTIONS = ("max_moves", "hidden", "points_prior", "look_ahead", "row_only")


def flat(obs):
    """The flat observation: the one-seat view gives it, the self-play env's dict holds it
    under "observations"."""
    return obs["observations"] if isinstance(obs, dict) else obs


def build(recipe: QRecipe):
    """DQN on the running Ray instance: sampling and learning in the driver."""
    from ray.rllib.algorithms.dqn import DQNConfig
    from ray.rllib.algorithms.dqn.default_dqn_rl_module import QF_PREDS
    from ray.rllib.algorithms.dqn.torch.default_dqn_torch_rl_module import (
        DefaultDQNTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.learner.utils import make_target_network
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.schedules.scheduler import Scheduler
    from ray.tune.registry import register_env

    class RowsDQNModule(DefaultDQNTorchRLModule):
        """RLlib's DQN module with ``MovePolicyNet`` as its Q-network (and a copy of it
        as the target network)."""

        def setup(self) -> None:
            given = self.model_config
            self.uses_dueling, self.uses_double_q, self.num_atoms = False, True, 1
            self.epsilon_schedule = Scheduler(given["epsilon"], framework="torch")
            self.net = MovePolicyNet(MovePolicyConfig(**{k: given[k] for k in NET_OPTIONS}))

        def get_non_inference_attributes(self) -> list[str]:
            return ["_target_net"]

        def make_target_networks(self) -> None:
            self._target_net = make_target_network(self.net)

        def get_target_network_pairs(self) -> list:
            return [(self.net, self._target_net)]

        def compute_q_values(self, batch: dict) -> dict:
            return {QF_PREDS: row_values(self.net, flat(batch[Columns.OBS]))}

        def forward_target(self, batch: dict) -> dict:
            return {QF_PREDS: row_values(self._target_net, flat(batch[Columns.OBS]))}

        def get_initial_state(self) -> dict:
            return {}

        def _forward_exploration(self, batch: dict, t: int) -> dict:
            # RLlib's own draws its random actions among the values that are not minus
            # infinity or zero; here, among the legal rows
            q = self.compute_q_values(batch)[QF_PREDS]
            self.epsilon_schedule.update(t)
            explore = torch.rand(len(q)) < self.epsilon_schedule.get_current_value()
            legal = (q > MASKED_LOGIT / 2).float()
            drawn = torch.multinomial(legal, 1).squeeze(1)
            return {Columns.ACTIONS: torch.where(explore, drawn, q.argmax(dim=1))}

    class RowsMultiEnv(SelfPlayRows, MultiAgentEnv):
        """Self-play: the PettingZoo env as an RLlib MultiAgentEnv, every seat the
        learner's, with the one-seat view's rewards (``SelfPlayRows``)."""

        def __init__(self, config: dict) -> None:
            MultiAgentEnv.__init__(self)
            SelfPlayRows.__init__(self, QRecipe(**config))

    env_config = recipe.to_dict()
    if recipe.self_play:
        register_env("qwirkle_rows", lambda config: RowsMultiEnv(config))
    else:
        register_env("qwirkle_rows", lambda config: QRecipe(**config).make_env())
    net = recipe.net().config
    model = {k: getattr(net, k) for k in NET_OPTIONS}
    epsilon = [(0, recipe.eps_start), (recipe.eps_steps, recipe.eps_end)]
    replay = "MultiAgentEpisodeReplayBuffer" if recipe.self_play else "EpisodeReplayBuffer"
    config = (
        DQNConfig()
        .environment("qwirkle_rows", env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=recipe.envs)
        .learners(num_learners=0)
        .training(
            lr=[[0, recipe.lr], [recipe.steps, recipe.lr * recipe.lr_factor(1.0)]],
            gamma=recipe.gamma,
            n_step=recipe.n_step,
            train_batch_size_per_learner=recipe.batch,
            # each sampled step is trained on batch / train_every times, as in the others
            training_intensity=recipe.batch / recipe.train_every,
            target_network_update_freq=recipe.target_every * recipe.train_every,
            num_steps_sampled_before_learning_starts=recipe.learning_starts,
            replay_buffer_config={"type": replay, "capacity": recipe.buffer},
            double_q=True,
            dueling=False,
            num_atoms=1,
            epsilon=epsilon,
            td_error_loss_fn="huber",
        )
        .debugging(seed=recipe.seed)
    )
    spec = RLModuleSpec(module_class=RowsDQNModule, model_config=model)
    if recipe.self_play:  # one module, "shared", plays every seat
        config = config.multi_agent(
            policies={MODULE[True]}, policy_mapping_fn=lambda agent, episode, **kw: MODULE[True]
        ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE[True]: spec}))
    else:
        config = config.rl_module(rl_module_spec=spec)
    return config.build_algo()


def learner_net(algo, recipe: QRecipe) -> MovePolicyNet:
    """A copy of the learner's Q-network."""
    module = MODULE[recipe.self_play]
    (state,) = algo.learner_group.get_weights(module_ids=[module]).values()
    net = recipe.net()
    weights = {k.removeprefix("net."): torch.as_tensor(v) for k, v in state.items()
               if k.startswith("net.")}  # fmt: skip
    net.load_state_dict(weights)
    return net


def main() -> None:
    parser = q_recipe_parser(__doc__.split("\n")[0], "runs/rllib_dqn/rllib_dqn.pt")
    args = parser.parse_args()
    # every option checked before Ray starts anything
    recipe = q_recipe(args, self_play=True, one_seat_n_step=ONE_SEAT_N_STEP)
    from ray_loopback import reexec_on_loopback  # beside this file; stdlib only

    run = reexec_on_loopback(need_namespace=True)  # exec: what follows runs in the namespace
    import ray

    torch.set_num_threads(1)
    torch.manual_seed(recipe.seed)
    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _temp_dir=str(run.ray_temp_dir),
        runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}},
    )
    try:
        algo = build(recipe)
        train = {"library": "ray rllib DQN", **recipe.to_dict()}
        curve = recipe.curve("rllib", train)
        recipe.announce()
        start = time.perf_counter()
        curve.point(learner_net(algo, recipe), 0)
        steps, next_point = 0, recipe.eval_every
        with tqdm(total=recipe.steps, unit="step", desc="rllib_dqn") as bar:
            while steps < recipe.steps:
                result = algo.train()
                now = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
                if now <= steps:
                    raise RuntimeError(f"the env runner sampled nothing after {steps} steps")
                bar.update(now - steps)
                steps = now
                if next_point <= steps < recipe.steps:
                    next_point += recipe.eval_every
                    curve.point(learner_net(algo, recipe), steps)
                if time.perf_counter() - start > 60 * recipe.minutes:
                    print(f"stopped after --minutes {recipe.minutes:g}, at {steps} env steps")
                    break
        net = learner_net(algo, recipe)
        if curve.rows[-1][0] != steps:
            curve.point(net, steps)
        wall = time.perf_counter() - start
        algo.stop()
    finally:
        ray.shutdown()
    recipe.finish(curve, net, "rllib", train, steps, wall)


if __name__ == "__main__":
    main()

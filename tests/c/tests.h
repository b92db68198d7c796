/* Every test of the C suite; main.c runs them in this order. */
#ifndef TB_TESTS_H
#define TB_TESTS_H

#include "check.h"

void test_figure5_contention_and_hops(void);
void test_figure5_cost_per_pattern(void);
void test_deeper_tree_contention(void);
void test_runtime_model(void);
void test_runtime_model_missing_cost(void);
void test_runtime_law_choice(void);
void test_status_fallback_words(void);
void test_table2_balanced(void);
void test_balanced_reverse_pass_and_compute_order(void);
void test_default_best_fit(void);
void test_default_compares_parents_and_distance(void);
void test_default_matches_leaf_by_leaf(void); /* test_default_reference.c */
void test_group_by_leaf_matches_insertion(void); /* test_group_by_leaf.c */
void test_greedy_orders_by_contention(void);
void test_greedy_balanced_whole_leaf_tie(void);
void test_adaptive_picks_cheaper_or_costlier(void);
void test_refusals(void);
void test_properties_random_states(void);
void test_properties_balanced_powers_of_two(void);
void test_scenario_errors(void);
void test_scenario_long_lines(void);
void test_matrix_parse_and_hop_bytes(void);
void test_matrix_errors(void);
void test_matrix_block_placement_and_line_form(void);
void test_topology_json(void);
void test_topology_json_errors(void);
void test_read_file_errors(void);
/* test_topology_index.c */
void test_topology_index_big(void);
void test_topology_index_duplicate(void);
void test_topology_index_growth(void);
void test_node_index_finds_every_node_by_name(void); /* test_node_index.c */
void test_profile_from_comment(void);
void test_comm_option(void);
/* test_icpp_paper.c */
void test_icpp_eq1_communication_ratio(void);
void test_icpp_greedy_fitting_leaf(void);
void test_icpp_eq3_pair_and_path(void);
void test_icpp_compute_job_contention(void);
void test_icpp_eq7_compute_job_unchanged(void);
void test_icpp_default1905(void);
void test_icpp_balanced_split_and_compute(void);
void test_icpp_ranks_authors(void);
void test_icpp_options_text(void);
void test_icpp_adaptive_tie(void);
/* test_sc18.c */
void test_sc18_classes_and_pods(void);
void test_sc18_figure2_validator(void);
void test_sc18_isolated_t1(void);
void test_sc18_isolated_t2(void);
void test_sc18_isolated_t3(void);
void test_sc18_scenario_running(void);
void test_sc18_isolated_random_states(void);
void test_tm_figure2_hop_bytes(void);
void test_tm_runtime_model(void);
void test_tm_table1_figure1(void);
void test_tm_table1_grouping(void);
void test_tm_strategies_differ(void);
void test_tm_brute_force_small(void);
void test_tm_refusals(void);
void test_alloc_figure2(void);
void test_alloc_tree_cores_best_fit_by_nodes(void);
void test_alloc_hand_worked(void);
void test_alloc_scenario_errors(void);
void test_registry_lines(void); /* test_registry.c */
/* test_tofa.c */
void test_tofa_worked_case_ring(void);
void test_tofa_scotch0_scope_option(void);
void test_tofa_scotch_arch_option(void);
void test_tofa_worked_case_4x4(void);
void test_tofa_routes(void);
void test_tofa_eq1_costs(void);
void test_tofa_tie_asymmetry(void);
void test_tofa_abort_two_risky(void);
void test_tofa_window_and_fallback(void);
void test_tofa_scotch_deterministic(void);
void test_tofa_greedy_hand(void);
void test_tofa_refusals_and_errors(void);
void test_tofa_topology_json(void);
void test_tofa_outage_file(void);
void test_tofa_hit_route_and_node(void);
void test_tofa_runtime_model(void);
void test_tofa_fallback_window_option(void);
/* test_nedd.c */
void test_nedd_worked_case_traffic(void);
void test_nedd_worked_case_strategies(void);
void test_nedd_window_case(void);
void test_nedd_classifier(void);
void test_nedd_congestor_and_noise(void);
void test_nedd_random(void);
void test_nedd_scenario_errors(void);
void test_nedd_runtime_model(void);
void test_nedd_runtime_applied(void);
void test_nedd_unnamed_injection(void);
/* test_nedd_routed.c */
void test_nedd_routed_grid(void);
void test_nedd_routed_groups_and_noise(void);
void test_nedd_routed_option(void);
void test_nedd_routed_row_then_column(void);

/* test_sim.c */
void test_sim_fifo(void);
void test_sim_backfill_and_wait(void);
void test_sim_bf_window(void);
void test_sim_no_backfill(void);
void test_sim_no_limit_is_a_year(void);
void test_sim_isolated_waits(void);
void test_sim_isolated_wait_trials(void);
void test_sim_choice_is_make_allocs(void);
void test_sim_runtime_is_eq7(void);
void test_sim_costed_same_state(void);
void test_sim_plan_errors(void);
/* test_sim_cores.c */
void test_sim_cores_schedule(void);
void test_sim_cores_backfill_over_nodes(void);
void test_sim_cores_choice_is_make_allocs(void);
void test_sim_cores_other_policies_and_whole_nodes(void);
void test_sim_cores_plan_errors(void);
/* test_sim_bf_cost.c */
void test_sim_bf_cost_tests_take_time(void);
void test_sim_bf_cost_ignores_freed_nodes(void);
void test_sim_bf_cost_no_limits_pool_ends(void);
void test_sim_bf_cost_default_off(void);
/* test_sim_golden.c */
void test_sim_golden_schedules(void);

#endif

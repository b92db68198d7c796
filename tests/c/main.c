#include <stdio.h>

#include "check.h"
#include "tests.h"

int tb_check_failures;

#define T(name) { #name, name }
static const struct tb_test tb_tests[] = {
	T(test_figure5_contention_and_hops),
	T(test_figure5_cost_per_pattern),
	T(test_deeper_tree_contention),
	T(test_runtime_model),
	T(test_runtime_model_missing_cost),
	T(test_runtime_law_choice),
	T(test_status_fallback_words),
	T(test_table2_balanced),
	T(test_balanced_reverse_pass_and_compute_order),
	T(test_default_best_fit),
	T(test_default_compares_parents_and_distance),
	T(test_default_matches_leaf_by_leaf),
	T(test_group_by_leaf_matches_insertion),
	T(test_greedy_orders_by_contention),
	T(test_greedy_balanced_whole_leaf_tie),
	T(test_adaptive_picks_cheaper_or_costlier),
	T(test_refusals),
	T(test_properties_random_states),
	T(test_properties_balanced_powers_of_two),
	T(test_scenario_errors),
	T(test_scenario_long_lines),
	T(test_matrix_parse_and_hop_bytes),
	T(test_matrix_errors),
	T(test_matrix_block_placement_and_line_form),
	T(test_topology_json),
	T(test_topology_json_errors),
	T(test_read_file_errors),
	T(test_topology_index_big),
	T(test_topology_index_duplicate),
	T(test_topology_index_growth),
	T(test_node_index_finds_every_node_by_name),
	T(test_profile_from_comment),
	T(test_comm_option),
	T(test_icpp_eq1_communication_ratio),
	T(test_icpp_greedy_fitting_leaf),
	T(test_icpp_eq3_pair_and_path),
	T(test_icpp_compute_job_contention),
	T(test_icpp_eq7_compute_job_unchanged),
	T(test_icpp_default1905),
	T(test_icpp_balanced_split_and_compute),
	T(test_icpp_ranks_authors),
	T(test_icpp_options_text),
	T(test_icpp_adaptive_tie),
	T(test_sc18_classes_and_pods),
	T(test_sc18_figure2_validator),
	T(test_sc18_isolated_t1),
	T(test_sc18_isolated_t2),
	T(test_sc18_isolated_t3),
	T(test_sc18_scenario_running),
	T(test_sc18_isolated_random_states),
	T(test_tm_figure2_hop_bytes),
	T(test_tm_runtime_model),
	T(test_tm_table1_figure1),
	T(test_tm_table1_grouping),
	T(test_tm_strategies_differ),
	T(test_tm_brute_force_small),
	T(test_tm_refusals),
	T(test_alloc_figure2),
	T(test_alloc_hand_worked),
	T(test_alloc_tree_cores_best_fit_by_nodes),
	T(test_alloc_scenario_errors),
	T(test_registry_lines),
	T(test_tofa_worked_case_ring),
	T(test_tofa_worked_case_4x4),
	T(test_tofa_routes),
	T(test_tofa_eq1_costs),
	T(test_tofa_tie_asymmetry),
	T(test_tofa_abort_two_risky),
	T(test_tofa_window_and_fallback),
	T(test_tofa_scotch_deterministic),
	T(test_tofa_greedy_hand),
	T(test_tofa_refusals_and_errors),
	T(test_tofa_topology_json),
	T(test_tofa_outage_file),
	T(test_tofa_hit_route_and_node),
	T(test_tofa_runtime_model),
	T(test_tofa_fallback_window_option),
	T(test_tofa_scotch0_scope_option),
	T(test_tofa_scotch_arch_option),
	T(test_nedd_worked_case_traffic),
	T(test_nedd_worked_case_strategies),
	T(test_nedd_window_case),
	T(test_nedd_classifier),
	T(test_nedd_congestor_and_noise),
	T(test_nedd_random),
	T(test_nedd_scenario_errors),
	T(test_nedd_runtime_model),
	T(test_nedd_runtime_applied),
	T(test_nedd_unnamed_injection),
	T(test_nedd_routed_grid),
	T(test_nedd_routed_groups_and_noise),
	T(test_nedd_routed_option),
	T(test_nedd_routed_row_then_column),
	T(test_sim_fifo),
	T(test_sim_backfill_and_wait),
	T(test_sim_bf_window),
	T(test_sim_no_backfill),
	T(test_sim_no_limit_is_a_year),
	T(test_sim_isolated_waits),
	T(test_sim_isolated_wait_trials),
	T(test_sim_choice_is_make_allocs),
	T(test_sim_runtime_is_eq7),
	T(test_sim_costed_same_state),
	T(test_sim_plan_errors),
	T(test_sim_cores_schedule),
	T(test_sim_cores_backfill_over_nodes),
	T(test_sim_cores_choice_is_make_allocs),
	T(test_sim_cores_other_policies_and_whole_nodes),
	T(test_sim_cores_plan_errors),
	T(test_sim_bf_cost_tests_take_time),
	T(test_sim_bf_cost_ignores_freed_nodes),
	T(test_sim_bf_cost_no_limits_pool_ends),
	T(test_sim_bf_cost_default_off),
	T(test_sim_golden_schedules),
	{ NULL, NULL },
};
#undef T


int main(void)
{
	int passed = 0, failed = 0, n = 0;

	for (const struct tb_test *t = tb_tests; t->name; t++)
		n++;
	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		int before = tb_check_failures;
		tb_tests[i].fn();
		if (tb_check_failures == before) {
			passed++;
			printf("ok %d %s\n", i + 1, tb_tests[i].name);
		} else {
			failed++;
			printf("not ok %d %s\n", i + 1, tb_tests[i].name);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

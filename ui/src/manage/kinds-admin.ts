// The global kinds of the administration page, by name only: the app bar needs them without
// loading the page's chunk (and its forms).

/** Kinds managed on /admin (Project is on the home page). */
export const ADMIN_KINDS = ['GlobalDatasource', 'GlobalVariable', 'GlobalSecret', 'GlobalRole', 'GlobalRoleBinding', 'User'];

// Perses' own MUI theme (light and dark), imported from its file rather than the
// @perses-dev/components index: the index pulls in every component and the chart libraries,
// which the sign-in, home and list pages do not need (they load without them).
export { getTheme } from '@perses-dev/components/dist/theme/theme.js';

import type { ComponentType } from 'react';
import type { FormProps } from './common';
import { DatasourceForm } from './DatasourceForm';
import { DisplayForm } from './DisplayForm';
import { PlaylistForm } from './PlaylistForm';
import { RoleBindingForm } from './RoleBindingForm';
import { RoleForm } from './RoleForm';
import { SecretForm } from './SecretForm';
import { UserForm } from './UserForm';
import { VariableForm } from './VariableForm';

/** The form of each kind (kinds without one are edited as YAML). */
export const FORMS: Record<string, ComponentType<FormProps>> = {
  Project: DisplayForm,
  Dashboard: DisplayForm,
  EphemeralDashboard: DisplayForm,
  Folder: DisplayForm,
  Playlist: PlaylistForm,
  Datasource: DatasourceForm,
  GlobalDatasource: DatasourceForm,
  Variable: VariableForm,
  GlobalVariable: VariableForm,
  Secret: SecretForm,
  GlobalSecret: SecretForm,
  Role: RoleForm,
  GlobalRole: RoleForm,
  RoleBinding: RoleBindingForm,
  GlobalRoleBinding: RoleBindingForm,
  User: UserForm,
};

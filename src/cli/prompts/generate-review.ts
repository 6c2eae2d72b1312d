/** After the proposed structure is shown: save it, or leave without writing anything. */
export type ReviewChoice = 'accept' | 'edit' | 'cancel';

export async function askReview(apiId: string, options: { canEdit: boolean }): Promise<ReviewChoice> {
  const { select } = await import('@inquirer/prompts');
  const choices: Array<{ name: string; value: ReviewChoice; description: string }> = [
    { name: 'Accept and save', value: 'accept', description: `write configs/${apiId}.json` },
  ];
  if (options.canEdit) choices.push({ name: 'Edit before saving', value: 'edit', description: 'add, remove, rename or move fields' });
  choices.push({ name: 'Cancel', value: 'cancel', description: 'save nothing' });
  return select<ReviewChoice>({ message: `Save this structure as ${apiId}?`, choices });
}
